"""The day: the vote count, the house rules' additions, the majority notice, counts and reminders on the board, the calendar, polling."""
