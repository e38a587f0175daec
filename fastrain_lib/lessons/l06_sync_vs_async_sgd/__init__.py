"""lessons/l06_sync_vs_async_sgd"""
