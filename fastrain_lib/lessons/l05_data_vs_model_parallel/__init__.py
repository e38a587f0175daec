"""lessons/l05_data_vs_model_parallel"""
