"""What the games share to turn state into words and pictures: the table message frame, leaderboards
and stats cards, safe display names, numbers per language, picture helpers and the picture workers."""
