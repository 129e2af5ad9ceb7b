"""What runs around a GraphQL operation rather than in a resolver: the limits and the cost rule, the bounds of size
arguments, the parse-and-validate cache, error masking, warnings on an answer, /metrics timings, the refusal of
text that is not Unicode, and subscriptions executed once per event for all subscribers of one shape."""
