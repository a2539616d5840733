# headway-design: pipelined
# summary: DMA of the next tile overlapped with compute on this one (P_STAGES buffers)
# param P_TILE 64 128 256 default 128
# param P_STAGES 2 3 4 default 2
# headway-file: kernels/rmsnorm.py
kernel = "rmsnorm"
tile = {{P_TILE}}
vector = 64
stages = {{P_STAGES}}
unroll = 2
