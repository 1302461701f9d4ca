"""The dice tower link (codec, link, discovery, simulator, firmware). Built under issue 4."""
