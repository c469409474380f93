"""`dojo bench`: the performance figures of the product, measured in one run on this machine."""
