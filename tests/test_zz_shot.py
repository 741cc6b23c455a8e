import os

from test_window_field_gold import open_two_fields, settled


def test_shot(qtbot, encoded_window, tmp_path):
    window = encoded_window
    open_two_fields(qtbot, window, tmp_path)
    settled(qtbot, window)
    out = os.environ.get("SHOT", "/tmp/gshot")
    for size in ((1024, 640), (1366, 768)):
        window.resize(*size)
        for tab in range(4):
            window.results.setCurrentIndex(tab)
            qtbot.wait(300)
            window.grab().save(f"{out}-{size[0]}-tab{tab}.png")
        window.results.field_choice.setCurrentIndex(1)
        window.results.setCurrentIndex(1)
        qtbot.wait(300)
        window.grab().save(f"{out}-{size[0]}-prio.png")
        window.results.field_choice.setCurrentIndex(0)
