"""lessons/l00_setup"""
