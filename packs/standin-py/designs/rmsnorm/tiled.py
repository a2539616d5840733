# headway-design: tiled
# summary: bigger DMA tiles and wider vectors, no pipelining
# param P_TILE 32 64 128 256 default 64
# param P_VECTOR 16 32 64 default 32
# headway-file: kernels/rmsnorm.py
kernel = "rmsnorm"
tile = {{P_TILE}}
vector = {{P_VECTOR}}
stages = 1
unroll = 1
