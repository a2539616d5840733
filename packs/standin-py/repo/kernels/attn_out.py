# attn_out: the attention output projection (f8 weights) plus the residual.
# The plain version: small tiles, narrow vectors, no pipelining.
kernel = "attn_out"
tile = 16
vector = 16
stages = 1
unroll = 1
