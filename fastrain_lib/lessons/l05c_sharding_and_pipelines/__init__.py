"""lessons/l05c_sharding_and_pipelines"""
