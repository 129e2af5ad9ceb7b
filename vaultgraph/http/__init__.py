"""The HTTP edge in front of GraphQL: authentication, rate limits, the request body cap, refusals as JSON."""
