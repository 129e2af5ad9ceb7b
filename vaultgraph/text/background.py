"""A background sample of ordinary text, unrelated to any tenant's corpus: the similarity floor's null model.

How similar two unrelated texts look depends on the embedding model (some models put every pair near 0.1, others
near 0.7) and on the query (a long generic question is closer to everything than a rare term). Comparing the query
with these sentences tells, for this model and this query, what "unrelated" scores (services/similarity_floor.py).
They cover many everyday domains in plain sentences of varied length, and none is about any one subject; they are
the null sample, not data to match, and are never stored or returned.
"""

from __future__ import annotations

BACKGROUND_TEXTS: tuple[str, ...] = (
    "The train to the coast leaves every hour from platform four.",
    "Add the onions to the pan and stir until they turn golden.",
    "Our team won the match after a late goal in the second half.",
    "Please remember to water the plants while I am away this week.",
    "The museum opens at ten and closes early on Sundays.",
    "He repaired the bicycle chain with a borrowed tool.",
    "Rain is expected tomorrow afternoon, clearing by the evening.",
    "The quarterly report shows a small rise in operating costs.",
    "She practised the piano for two hours before the concert.",
    "The contract ends in March unless both parties renew it.",
    "Children learn to read faster when stories are read aloud to them.",
    "The hotel room had a view over the old harbour.",
    "A new bridge will connect the two halves of the town.",
    "The recipe needs three eggs, flour, butter and a pinch of salt.",
    "Voters will elect a new council in the spring.",
    "The novel follows a family across three generations.",
    "Our flight was delayed because of fog at the airport.",
    "The farmer planted wheat in the north field this year.",
    "Keep the receipt in case you need to return the shoes.",
    "The painter used bright colours and thick brush strokes.",
    "A short walk after dinner helps many people sleep better.",
    "The library extended its opening hours during exams.",
    "The price of apartments in the city centre keeps rising.",
    "Our neighbours adopted a small dog from the shelter.",
    "The meeting was moved to Thursday at three o'clock.",
    "The river flooded the lower streets after the storm.",
    "He keeps his old letters in a wooden box under the bed.",
    "The band released its first album after years of touring.",
    "Turn left at the bakery and the post office is on your right.",
    "The castle was built in the twelfth century and rebuilt later.",
    "Her new job starts on Monday in the sales department.",
    "The kettle is broken, so we boiled water in a pot.",
    "The city plans more cycle lanes along the main avenue.",
    "The film won an award for its soundtrack.",
    "Students must hand in the essay before the end of the month.",
    "The ferry crossing was calm and took less than an hour.",
    "Fresh bread is delivered to the shop every morning.",
    "The company hired twenty new engineers last year.",
    "He forgot his umbrella on the bus again.",
    "The garden is full of roses and lavender in June.",
    "Tickets for the festival sold out within a day.",
    "The old clock in the hall stopped at midnight.",
    "A good pair of boots makes a long hike much easier.",
    "The election results were announced late at night.",
    "We painted the kitchen a pale shade of green.",
    "The shop offers a discount to customers who bring their own bags.",
    "Snow closed the mountain road for three days.",
    "The teacher asked the class to write about their holidays.",
)
