"""async_sgd"""
