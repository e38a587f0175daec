"""lessons/l02_to_device"""
