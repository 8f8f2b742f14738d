"""Model servers: llama.cpp's server with a model pack assembled from PyPI wheels."""
