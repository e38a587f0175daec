"""What the student sees: plots with the Bengali font, the experiment panel and tables (widgets),
the web font, progress bars, class results.
"""
