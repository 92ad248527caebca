"""Pictures for people: the text diagram, SVG pictures, the arena report and the
web page's files. Imports the layers below; nothing below imports it."""
