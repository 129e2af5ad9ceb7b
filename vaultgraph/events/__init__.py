"""Events: the named event dataclasses and the in-process bus (bus.py); the Redis bus across processes (redis.py)."""
