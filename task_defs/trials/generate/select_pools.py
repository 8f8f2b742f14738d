"""What the select family's requests are made of: the topics, phrases, places, currencies, units and files its
templates draw from, and NONE_SELECT, the requests no select tool can serve."""

from __future__ import annotations

EMAIL_TOPICS = (
    ("Invoice {n}", "Payment for invoice {n} was sent today."),
    ("Meeting moved", "Our meeting on {day} is now at {time}."),
    ("Slides for {day}", "The final slides are in the shared folder."),
    ("Lunch on {day}", "Are you free for lunch on {day} at {time}?"),
    ("Contract draft", "Please review the contract draft by {day}."),
    ("Working from home", "I am unwell and will work from home today."),
    ("Office keys", "I left the office keys at reception."),
    ("Welcome aboard", "Welcome to the team, see you on {day}!"),
    ("Room booking", "I booked room {room} for {day} at {time}."),
    ("Quarterly report", "The quarterly report is now in the team folder."),
    ("Order {n}", "Order {n} shipped this morning."),
    ("Holiday cover", "{other} will cover my tasks while I am away."),
    ("Car park closed", "The car park is closed on {day}, so please take the train."),
    ("Design feedback", "Thanks for the quick turnaround on the designs."),
    ("Visitor on {day}", "A visitor from {company} arrives at {time}."),
    ("Travel budget", "The travel budget for next quarter is {amount} EUR."),
    ("Training session", "The safety training starts at {time} in room {room}."),
    ("Team dinner", "Dinner is booked for {day} at {time}, see you there."),
    ("Server maintenance", "The build server will be offline on {day} from {time}."),
    ("Thank you", "Thank you for hosting us on {day}."),
)
SMS_TEXTS = ("Running {n} minutes late.", "Your table is ready.", "Gate code is {code4}.", "I'm outside.",
             "The parcel is with the neighbour at number {n}.", "Meet you at the station at {time}.",
             "Call me when you land.", "Dinner is in the oven.", "Your car is ready for pickup.",
             "The meeting is cancelled.", "Please bring the charger.", "Happy birthday, {other}!",
             "The plumber arrives at {time}.", "Can you pick up bread on the way home?", "My flight lands at {time}.",
             "The keys are under the mat.", "Practice is moved to {day}.", "Don't forget the tickets.",
             "Your appointment is confirmed for {day} at {time}.", "Heating is fixed, all good now.")
LANGUAGES = (("German", "de"), ("French", "fr"), ("Spanish", "es"), ("Italian", "it"), ("Portuguese", "pt"),
             ("Dutch", "nl"), ("Japanese", "ja"), ("Korean", "ko"), ("Polish", "pl"), ("Swedish", "sv"),
             ("Turkish", "tr"), ("Greek", "el"), ("Finnish", "fi"), ("Czech", "cs"), ("Danish", "da"),
             ("Hungarian", "hu"), ("Romanian", "ro"), ("Ukrainian", "uk"), ("Indonesian", "id"), ("Vietnamese", "vi"))
PHRASES = ("Where is the train station?", "Thank you for your patience.", "The meeting starts at noon.",
           "Your order has shipped.", "Could you speak a little more slowly?", "I would like a table for two.",
           "How much does this cost?", "The museum is closed on Mondays.", "Please keep the door closed.",
           "We will arrive tomorrow evening.", "Is breakfast included?", "My luggage did not arrive.",
           "The shop opens at nine.", "I am allergic to peanuts.", "Where can I buy a ticket?",
           "The water is not safe to drink.", "Please send me the invoice.", "Good luck with your exam!",
           "The printer is out of paper.", "Can I pay by card?", "See you next week.", "The lift is out of order.",
           "Turn left at the church.", "Welcome to our new office.", "The concert has been postponed.",
           "Please wait here for a moment.", "Do you have this in a smaller size?", "The bus leaves every hour.")
TIMER_LABELS = ("tea", "pasta", "laundry", "eggs", "bread", "pizza", "rice", "nap", "stretch break", "study",
                "parking meter", "oven", "cookies", "steak", "focus", "homework", "meditation", "plank", "bath",
                "soup", "cake", "bike repair", "phone charge", "dough")
COMPANY_TICKERS = (("Apple", "AAPL"), ("Microsoft", "MSFT"), ("Alphabet", "GOOGL"), ("Amazon", "AMZN"),
                   ("Netflix", "NFLX"), ("Nvidia", "NVDA"), ("Intel", "INTC"), ("AMD", "AMD"), ("IBM", "IBM"),
                   ("Coca-Cola", "KO"), ("Walmart", "WMT"), ("Nike", "NKE"), ("Disney", "DIS"), ("Boeing", "BA"),
                   ("Visa", "V"), ("Pfizer", "PFE"), ("Oracle", "ORCL"), ("Salesforce", "CRM"), ("Adobe", "ADBE"),
                   ("Shopify", "SHOP"), ("Spotify", "SPOT"), ("Uber", "UBER"), ("Airbnb", "ABNB"),
                   ("PayPal", "PYPL"), ("Starbucks", "SBUX"), ("McDonald's", "MCD"), ("Ford", "F"),
                   ("General Motors", "GM"), ("Exxon Mobil", "XOM"), ("Costco", "COST"), ("Tesla", "TSLA"))
FLIGHT_CITIES = (("Madrid",), ("Toronto",), ("Berlin",), ("Lisbon",), ("Chicago",), ("Orlando",), ("Singapore",),
                 ("Sydney",), ("Paris",), ("New York", "New York City", "NYC"), ("Rome",), ("Athens",), ("Dubai",),
                 ("Tokyo",), ("Seoul",), ("Mexico City",), ("Bogotá", "Bogota"), ("Nairobi",), ("Cairo",), ("Oslo",),
                 ("Copenhagen",), ("Prague",), ("Vienna",), ("Dublin",), ("Boston",), ("Seattle",), ("Vancouver",),
                 ("Melbourne",), ("Bangkok",), ("Istanbul",), ("Reykjavík", "Reykjavik"), ("Marrakesh", "Marrakech"))
CABINS = (("economy", "economy"), ("premium_economy", "premium economy"), ("business", "business class"),
          ("first", "first class"))
LANDMARKS = (  # city, places (alternative spellings after the first)
    ("London", (("Tower Bridge",), ("the British Museum",), ("Paddington Station",), ("Hyde Park Corner",),
                ("Camden Market",), ("the Tate Modern",))),
    ("Paris", (("the Louvre",), ("Gare du Nord",), ("the Eiffel Tower",), ("Montmartre",), ("Place de la Bastille",))),
    ("Berlin", (("Alexanderplatz",), ("the Brandenburg Gate",), ("Berlin Hauptbahnhof",), ("Checkpoint Charlie",),
                ("Museum Island",))),
    ("New York", (("Grand Central Terminal",), ("Times Square",), ("the Brooklyn Bridge",), ("Central Park Zoo",),
                  ("the High Line",))),
    ("Rome", (("the Colosseum",), ("the Trevi Fountain",), ("Roma Termini",), ("the Pantheon",),
              ("Piazza Navona",))),
    ("Tokyo", (("Shibuya Crossing",), ("Tokyo Station",), ("Ueno Park",), ("Senso-ji", "Sensoji", "Senso-ji Temple"),
               ("Shinjuku Gyoen",))),
    ("Barcelona", (("Sagrada Família", "Sagrada Familia"), ("Park Güell", "Park Guell"), ("Barcelona Sants",),
                   ("La Boqueria",), ("Camp Nou",))),
    ("Amsterdam", (("Amsterdam Centraal", "Centraal Station"), ("the Rijksmuseum",), ("Vondelpark",),
                   ("the Anne Frank House",), ("Dam Square",))),
    ("Chicago", (("Union Station",), ("Millennium Park",), ("Navy Pier",), ("Wrigley Field",),
                 ("the Art Institute",))),
)
MODES = (("driving", ("drive", "by car", "driving")), ("walking", ("walk", "on foot", "walking")),
         ("cycling", ("cycle", "by bike", "cycling")), ("transit", ("take public transport", "by public transit",
                                                                    "by public transport")))
CURRENCIES = (("EUR", "euros"), ("USD", "US dollars"), ("GBP", "British pounds"), ("JPY", "Japanese yen"),
              ("CHF", "Swiss francs"), ("CAD", "Canadian dollars"), ("AUD", "Australian dollars"),
              ("SEK", "Swedish kronor"), ("NOK", "Norwegian kroner"), ("DKK", "Danish kroner"),
              ("MXN", "Mexican pesos"), ("INR", "Indian rupees"), ("BRL", "Brazilian reais"),
              ("ZAR", "South African rand"), ("PLN", "Polish zloty"), ("SGD", "Singapore dollars"),
              ("CNY", "Chinese yuan"), ("KRW", "South Korean won"), ("NZD", "New Zealand dollars"),
              ("TRY", "Turkish lira"))
UNITS = {  # code: singular, plural, what it measures
    "mm": ("millimetre", "millimetres", "length"), "cm": ("centimetre", "centimetres", "length"),
    "m": ("metre", "metres", "length"), "km": ("kilometre", "kilometres", "length"),
    "in": ("inch", "inches", "length"), "ft": ("foot", "feet", "length"), "yd": ("yard", "yards", "length"),
    "mi": ("mile", "miles", "length"), "g": ("gram", "grams", "mass"), "kg": ("kilogram", "kilograms", "mass"),
    "oz": ("ounce", "ounces", "mass"), "lb": ("pound", "pounds", "mass"),
    "ml": ("millilitre", "millilitres", "volume"), "l": ("litre", "litres", "volume"),
    "gal": ("gallon", "gallons", "volume"),
}
FILE_KINDS = (("PDF", "pdf"), ("Word", "docx"), ("PNG", "png"), ("JPEG", "jpg"), ("CSV", "csv"), ("Markdown", "md"),
              ("MP3", "mp3"), ("Excel", "xlsx"), ("ZIP", "zip"), ("Python", "py"), ("SVG", "svg"), ("MP4", "mp4"))
SEARCH_FOLDERS = ("/home/ana/reports", "~/Documents/taxes", "~/Pictures/2024", "/var/log/nginx", "~/Downloads",
                  "/srv/exports", "~/music/live", "D:\\Archive", "C:\\Projects", "~/code/website",
                  "/mnt/backup/photos", "~/Desktop/invoices", "/opt/data/raw", "~/notes")
GLOBS = ("invoice_*.docx", "report-2024-*.pdf", "IMG_*.jpg", "*backup*.zip", "draft_v?.md", "scan_*.png",
         "*_final.pptx", "log-2025-*.txt", "photo_??.heic", "budget*.xlsx", "test_*.py", "*.bak")
NOTES = (("Shopping", "Buy milk, eggs and coffee."),
         ("Gift ideas for {other}", "A scarf, a cookbook or concert tickets."),
         ("Guest Wi-Fi", "The guest network password is {code4}."), ("Parking spot", "Level {n}, space {m}."),
         ("Books to read", "Middlemarch, then The Trial."), ("Bike", "Front tyre pressure 3.5 bar."),
         ("Plumber", "Call back on {day} about the kitchen tap."), ("Packing list", "Passport, adapter, sunscreen."),
         ("Recipe idea", "Lentil soup with lemon and cumin."), ("Meeting notes", "Ship version {n}.{m} on {day}."),
         ("Garden", "Water the tomatoes every other day."), ("Locker", "Locker {n}, code {code4}."))


# requests no select tool can serve, with the tools that come closest and are still unfit left to be offered

BOOKS = ("Moby-Dick", "War and Peace", "One Hundred Years of Solitude", "Don Quixote", "Frankenstein",
         "Things Fall Apart", "The Little Prince", "Beloved", "Middlemarch", "The Master and Margarita")
COUNTRIES = ("Australia", "Canada", "Kenya", "Peru", "Vietnam", "Norway", "Morocco", "Chile", "Turkey", "Indonesia",
             "Mongolia", "New Zealand")
TOPICS = ("autumn rain", "a sleepy cat", "the first snow", "morning coffee", "a lighthouse", "city traffic",
          "spring blossoms", "an old bicycle", "the night train", "a quiet library")
NONE_SELECT: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    # (phrasings, tools never offered beside them because they could arguably serve)
    (("Book a hotel room in {city} from {d1} to {d2}.", "Find me a hotel in {city} for {n} nights from {d1}.",
      "Reserve a double room in {city} for {n} nights, please."), ()),
    (("What was the weather in {city} on {past}?", "How much rain fell in {city} on {past}?",
      "Was it sunny in {city} on {past}?"), ()),
    (("Who wrote {book}?", "What's the capital of {country}?", "Roughly how many people live in {country}?"), ()),
    (("What is {a} times {b}?", "What's {p}% of {x}?", "Is {x} a prime number?", "What is {x} divided by {a}?"), ()),
    (("Write a haiku about {topic}.", "Tell me a short joke about {topic}.",
      "Give me a title for a story about {topic}."), ("translate_text", "create_note")),
    (("Call {first} at {phone}.", "Ring {phone} and put it on speaker.", "Start a video call with {first}."), ()),
    (("Delete the '{title}' event on {d1} from my calendar.", "Cancel my '{title}' on {d1}.",
      "Move '{title}' on {d1} to an hour later."), ()),
    (("Cancel my table reservation at {rest} on {d1}.", "Move my booking at {rest} from {d1} to {d2}.",
      "What's on the menu at {rest} tonight?"), ()),
    (("Cancel my flight from {fc1} to {fc2} on {d1}.", "Check me in for my flight to {fc2} tomorrow.",
      "Pick a window seat on my flight to {fc2}."), ()),
    (("Turn off the lights in the {room}.", "Set the heating in the {room} to {t} degrees.",
      "Lock the front door."), ()),
    (("Book me a taxi to {place} at {time}.", "Order a car to pick me up at {place} in {n} minutes.",
      "How much would a taxi to {place} cost right now?"), ()),
    (("Pay my electricity bill of {bill} {cur}.", "Transfer {bill} {cur} to {first}'s bank account.",
      "What's the balance of my savings account?"), ()),
    (("Remove {first} {last} from my contacts.", "Change {first}'s phone number to {phone}.",
      "Merge the two contacts named {first} {last}."), ()),
    (("Summarise this in one sentence: the committee met on {day} and agreed to postpone the vote until the "
      "{survey} survey is finished.", "Fix the grammar: 'me and {first} goes to the gym every {day}.'",
      "Is 'their' or 'there' right in: 'The keys are over ___'?"), ("translate_text", "create_note", "send_email")),
    (("Set an alarm for {time} tomorrow morning.", "Wake me up at {time} every weekday.",
      "Snooze my alarm for ten more minutes."), ("set_timer", "create_event", "create_note")),
    (("Play some rain sounds until I fall asleep.", "Put on some jazz in the {room}.", "Skip this song."), ()),
    (("Sell {n} shares of {ticker}.", "Buy {n} shares of {ticker} at market price.",
      "Set a price alert for {ticker}."), ()),
    (("Read me my latest emails.", "Did {first} reply to my last email?",
      "Unsubscribe me from the {company} newsletter."), ()),
    (("Delete all the .tmp files in {folder}.", "Compress {folder} into a zip archive.",
      "How much disk space does {folder} use?"), ("search_files",)),
    (("What are today's top news headlines?", "Who won the football match last night?",
      "Any news about the elections this morning?"), ()),
    (("Remind me to water the plants every Sunday.", "Remind me to call {first} when I get home.",
      "Nudge me about the dentist when I leave work."), ("set_timer", "create_event", "create_note", "send_sms")),
    (("What's the best way to learn {lang}?", "Recommend a good novel set in {city}.",
      "Suggest a name for a grey kitten."), ()),
    (("Order a large pizza for delivery to {place}.", "Get groceries delivered tonight: milk, bread and eggs.",
      "Reorder the coffee beans I bought last month."), ()),
    (("How many calories are in a banana?", "Scale this recipe to serve {n} people: 200 g flour for 4.",
      "What goes well with grilled {fish}?"), ()),
    (("Send a postcard to {first} in {city}.", "Print my boarding pass for the flight to {fc2}.",
      "Scan the letter on my desk."), ()),
    (("Thanks, that's everything for now!", "Good morning! How are you today?", "Never mind, I figured it out."),
     ()),
)
