"""Protocol v2: ``arena_pb2*``, generated from arena.proto by proto/generate.py (do not edit),
and ``convert``, the one conversion between engine values and these messages (hand-written)."""
