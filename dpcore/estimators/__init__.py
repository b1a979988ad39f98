"""One module per estimator family; each registers its estimators with :func:`dpcore.estimate.register`."""
