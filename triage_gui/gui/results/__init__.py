"""The results room: the results area (summary, accuracy, versions, flips), the latency chart, the version
comparison and the detail pane.
"""
