"""The referee's side of the companion: the game loop (``game``), the referee that
decides every press (``referee``), the game journal (``journal``), refereeing a
folder of photos (``audit``) and the archive of judged frames (``frames``)."""
