"""The Discord side of a table: the one router of clicks and funnel of errors, click handlers, the
presenter of public messages and followed panels, component payloads, button ids read back, the
3-second callback policy and the REST budget."""
