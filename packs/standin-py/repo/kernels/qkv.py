# qkv: RMSNorm, then the Q, K and V projections (f8 weights), RoPE on q and k.
# The plain version: small tiles, narrow vectors, no pipelining.
kernel = "qkv"
tile = 16
vector = 16
stages = 1
unroll = 1
