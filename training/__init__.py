"""Training (PPO with masks, self-play) and evaluation (tournaments with confidence intervals)."""
