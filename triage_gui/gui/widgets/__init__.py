"""Small general widgets the rooms share."""
