"""Engine tests: games, bots, the match loop and the Gymnasium adapter."""
