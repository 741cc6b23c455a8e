"""The tickets room: the ticket area (filter bar, table, run bar, empty state), the table's model, view and
columns, and the label picker.
"""
