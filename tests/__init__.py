"""Tests for Facedown."""
