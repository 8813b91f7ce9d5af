"""The Discord side of a table: click handlers, the presenter of public messages and followed panels,
component payloads, button ids read back, the 3-second callback policy and the REST budget."""
