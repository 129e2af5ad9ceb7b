"""Test helpers shared across test folders (servers and fakes the tests start themselves)."""
