"""lessons/l05b_ddp_in_depth"""
