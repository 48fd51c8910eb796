"""Benchmarks for Facedown."""
