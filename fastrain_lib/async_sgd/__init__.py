"""Synchronous vs asynchronous SGD (lesson 06), together: the one-process simulator and its
plots, Hogwild! in real processes, a parameter server, local SGD.
"""
