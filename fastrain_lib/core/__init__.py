"""The bottom of the tree: run mode and language (config), messages (i18n: t for library
messages, pick for notebook cells), errors explained in Bengali, verdict printing, the setup cell.
Imports nothing else of fastrain_lib.
"""
