"""Sharing a knowledge base beyond one machine: signed shard bundles (issue 20)."""
