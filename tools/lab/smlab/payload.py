"""The line's test payloads, as smline makes them (route words
send=random:N:SEED, expect=random:N:SEED)."""


def payload(seed, n):
    """Python twin of sml_payload_fill() (tools/line/util.c): byte k is a pure
    function of (seed, k), so both ends can check a transfer."""
    m = (1 << 64) - 1
    out = bytearray(n)
    z = 0
    for k in range(n):
        if k % 8 == 0:
            z = (seed * 0x9E3779B97F4A7C15 + (k >> 3) + 1) & m
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
            z ^= z >> 31
        out[k] = (z >> (8 * (k & 7))) & 0xFF
    return bytes(out)
