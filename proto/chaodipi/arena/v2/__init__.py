"""Protocol v2: code generated from arena.proto by proto/generate.py (do not edit)."""
