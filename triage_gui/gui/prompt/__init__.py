"""The prompt room: the prompt editor, its cell editors, and the dialog that suggests labels from the tickets."""
