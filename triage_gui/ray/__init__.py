"""The scale-out path on a Ray cluster (classify --ray): the driver that hands blocks of tickets to scoring
actors and the worker those actors run. Ray itself is the optional `cluster` extra.
"""
