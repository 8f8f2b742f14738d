"""The breakdown jobs: language mixed with exact work, each asked three ways (an agent task over a file of all
items, one prompt holding every item, one question per item) in two wordings (first, tested)."""
