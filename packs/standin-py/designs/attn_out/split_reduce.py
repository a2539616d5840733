# headway-design: split_reduce
# summary: the reduction split into P_SPLIT chunks computed side by side, then summed
# param P_SPLIT 1 2 3 4 default 2
# param P_STAGES 2 3 4 default 3
# headway-file: kernels/attn_out.py
kernel = "attn_out"
tile = 128
vector = 64
stages = {{P_STAGES}}
unroll = 2
split = {{P_SPLIT}}
