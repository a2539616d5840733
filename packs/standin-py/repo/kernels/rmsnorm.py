# rmsnorm: a kernel headway has no contract of; the manifest declares the bytes it moves.
# The plain version: small tiles, narrow vectors, no pipelining.
kernel = "rmsnorm"
tile = 16
vector = 16
stages = 1
unroll = 1
