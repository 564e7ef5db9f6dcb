"""PlayTrace's application model: what the window shows, as plain Python that imports no Qt.

Views (the board, the model panel, presenter mode, the study flow) read these models; tests and the
command line can use them without a display.
"""
