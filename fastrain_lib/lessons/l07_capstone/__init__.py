"""lessons/l07_capstone"""
