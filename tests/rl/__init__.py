"""The PettingZoo environment."""
