"""Training data, augmentation and training of the stance verifier (tools/verifier.py); `python -m
evals.train_verifier` runs it."""
