# headway-design: wide
# summary: 128- or 256-lane vectors (the datapath has 64: a compile error the rules learn)
# param P_VECTOR 128 256 default 128
# headway-file: kernels/attn_out.py
kernel = "attn_out"
tile = 64
vector = {{P_VECTOR}}
stages = 1
unroll = 1
