# ffn: gate and up projections, GELU, down projection (NVFP4 weights).
# The plain version: small tiles, narrow vectors, no pipelining.
kernel = "ffn"
tile = 16
vector = 16
stages = 1
unroll = 1
