"""The window's actions as data and the classes behind each menu: the action table, the menus built from it, and
one class per area's behaviour.
"""
