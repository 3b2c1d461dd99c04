"""The pure rules core: no network, no disk, no clock reads. Time comes in as arguments."""
