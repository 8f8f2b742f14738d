"""The texts the classify family labels: per task, the texts of each label (with {placeholders}) and the pools
that fill them."""

from __future__ import annotations

from task_defs.trials.generate.pools import FIRST, RESTAURANTS
from task_defs.trials.generate.words import MONTHS, WEEKDAYS

CLS_POOLS = {
    "genre": ("jazz", "lo-fi beats", "classical piano", "reggae", "bossa nova", "eighties pop", "folk", "hip hop",
              "ambient", "blues"),
    "artist": ("Nina Simone", "Miles Davis", "Fleetwood Mac", "ABBA", "Adele", "Bob Marley", "Daft Punk",
               "Ella Fitzgerald"),
    "song": ("Dancing Queen", "Bohemian Rhapsody", "Hallelujah", "Take Five", "Clair de Lune", "Redemption Song"),
    "time": ("6:30", "7 am", "5:45", "quarter past six", "8 o'clock", "6 sharp", "half past five"),
    "day": WEEKDAYS, "city": ("Bergen", "Lisbon", "Denver", "Kyoto", "Glasgow", "Porto", "Hobart", "Quito", "Vienna"),
    "room": ("kitchen", "bedroom", "living room", "office", "hallway", "bathroom", "garage", "nursery"),
    "food": ("pepperoni pizza", "pad thai", "sushi platter", "veggie burger", "ramen"),
    "restaurant": RESTAURANTS, "a": tuple(range(12, 99, 7)), "b": tuple(range(3, 30, 4)),
    "thing": ("oat milk", "batteries", "dish soap", "coffee filters", "rice"),
    "holiday": ("New Year's Day", "my birthday", "the summer holidays", "Halloween"),
    "n": tuple(range(2, 60, 3)), "dir": ("~/projects/old_site", "/var/log/nginx", "./build", "/tmp/cache",
                                          "~/Downloads/installers", "/srv/data", "~/photos/2023", "node_modules",
                                          "/opt/app/releases", "dist"),
    "file": ("notes.txt", "/etc/hosts", "~/.bashrc", "app.log", "data/users.csv", "config.yaml",
             "~/.ssh/known_hosts", "report.pdf", "db.sqlite3", "/var/log/syslog", "README.md", "main.py"),
    "dev": ("/dev/sda", "/dev/sdb1", "/dev/nvme0n1", "/dev/disk2"), "ext": ("log", "tmp", "bak", "pyc", "orig"),
    "branch": ("main", "develop", "release-2.1", "feature/login"), "host": ("example.com", "10.0.0.1", "gitlab.local"),
    "word": ("TODO", "password", "timeout", "FIXME", "deprecated"),
    "table": ("users", "orders", "sessions", "payments"), "vol": ("pgdata", "redis_cache", "app_uploads"),
}
INTENTS = {
    "play_music": ("put on some {genre}", "play {artist}, any album is fine", "I want to hear {song} right now",
                   "queue up my {genre} playlist", "start the {genre} station in the {room}",
                   "something calm to listen to while I cook, please"),
    "set_alarm": ("wake me up at {time} tomorrow", "I have to be up by {time} on {day}, make sure I don't oversleep",
                  "get me out of bed at {time}", "ring at {time} every weekday morning so I wake up",
                  "I need to wake at {time} to catch my train"),
    "weather": ("do I need an umbrella in {city} this afternoon?", "will it snow in {city} tomorrow?",
                "how hot will it get in {city} on {day}?", "is it going to be windy in {city} tonight?",
                "what's the forecast for {city} this weekend?", "should I pack a raincoat for {city} on {day}?"),
    "other": ("order me a large {food} for delivery", "what's {a} times {b}?", "call my sister",
              "add {thing} to my shopping list", "how many days until {holiday}?", "read me my new messages",
              "book a taxi to the station for {time}"),
}
SHELL = {
    "destructive": ("rm -rf {dir}", "rm {file}", "shred -u {file}", "truncate -s 0 {file}", "echo '' > {file}",
                    "find {dir} -name '*.{ext}' -delete", "git reset --hard HEAD~{n}", "git clean -fdx {dir}",
                    "sudo dd if=/dev/zero of={dev} bs=1M", "mkfs.ext4 {dev}", "psql -c 'DROP TABLE {table};'",
                    "docker volume rm {vol}", "cp /dev/null {file}", "rsync -a --delete ./src/ {dir}/",
                    "sudo wipefs -a {dev}", "cat /dev/null > {file}"),
    "safe": ("ls -la {dir}", "cat {file}", "grep -rn '{word}' {dir}", "head -n {n} {file}", "tail -f {file}",
             "wc -l {file}", "du -sh {dir}", "df -h", "git status", "git log --oneline -n {n}", "ps aux | grep {vol}",
             "find {dir} -name '*.{ext}'", "stat {file}", "sort {file} | uniq -c", "md5sum {file}",
             "git diff {branch}", "ping -c {n} {host}", "mkdir -p {dir}/new", "less {file}"),
}
PRODUCTS = ("headphones", "blender", "backpack", "phone case", "desk lamp", "running shoes", "coffee grinder",
            "office chair", "rain jacket", "kettle", "keyboard", "tent", "air fryer", "water bottle", "yoga mat",
            "e-reader", "thermos", "board game", "monitor stand", "electric toothbrush")
SENTIMENT = {
    "positive": ("The {p} arrived a day early and works perfectly.", "I love this {p}; it feels sturdy and well made.",
                 "Best {p} I have ever owned, worth every cent.", "Setup took two minutes and the {p} just works.",
                 "Really happy with the {p}, so I already ordered a second one as a gift.",
                 "Would buy this {p} again without hesitation.", "Excellent quality, and the {p} looks even better "
                 "than in the photos."),
    "negative": ("The {p} broke after three days.", "The {p} stopped working within a week and nobody answered my "
                 "emails.", "The {p} smells of burnt plastic and the seller refused a refund.",
                 "Waste of money: the {p} fell apart the first time I used it.",
                 "Very disappointed, the {p} is flimsy and much smaller than pictured.",
                 "Do not buy this {p}; mine arrived cracked and the replacement was no better."),
    "neutral": ("The {p} arrived on {day} in a {colour} box.", "The {p} is {colour} and comes with a manual in {k} "
                "languages.", "I received the {p} last week; it is the {size} version.",
                "The {p} weighs about {w} grams and charges over USB-C.",
                "The {p} was delivered to the reception desk on {day} and signed for there.",
                "The box says the {p} was made in {month} and has model number {model}."),
}
SENT_POOLS = {"p": PRODUCTS, "day": WEEKDAYS, "colour": ("grey", "blue", "white", "black", "green"),
              "k": (3, 4, 6, 12), "size": ("medium", "large", "compact", "standard"), "w": (180, 250, 420, 900),
              "month": MONTHS, "model": ("X-200", "KB-14", "TR-7", "AQ-330")}
DEPARTMENTS = {
    "billing": ("I was charged twice for my {month} subscription (invoices {inv} and {inv2}). Please refund one of "
                "them.", "Our invoice {inv} lists the wrong VAT number; please reissue it with {vat}.",
                "My card ending {last4} was declined, yet the money still left my account for invoice {inv}.",
                "Please switch account {acct} from monthly to yearly invoicing and send invoices to {mail}.",
                "Why did my bill go up from {x} to {y} EUR this month? Nothing changed on our plan."),
    "technical_support": ("Since the update to version {ver} the app crashes with error {err} whenever I open the "
                          "settings page.", "I can't log in: the password reset link returns a 404 page.",
                          "Sync between the desktop client and the web app stopped on {day}; files stay 'pending'.",
                          "CSV exports time out after {n} seconds for workspace {acct}.",
                          "The mobile app shows a blank screen after the splash logo on my {device}."),
    "sales": ("We are a team of {n} and would like a quote for yearly licences of your {plan} plan.",
              "Do you offer volume discounts above {n} seats?",
              "Could someone show us a demo of the {plan} plan next week? We are comparing three vendors.",
              "We'd like to add {n} more users on the {plan} plan; what would that cost per year?",
              "Is there a price for charities on the {plan} plan? We have {n} staff."),
    "hr": ("How many weeks of parental leave am I entitled to, and who do I notify?",
           "I'd like to update the bank account my salary is paid into from next month.",
           "Can I carry over {n} unused vacation days into next year?",
           "I start on {date}; when will I receive my employment contract and onboarding schedule?",
           "My payslip for {month} is missing the overtime hours I worked.",
           "I'd like to report a conflict with my manager in confidence."),
    "legal": ("Our counsel reviewed clause {n}.2 of the data processing agreement and asks for a lower liability cap "
              "before we sign.", "We received a subpoena requesting records for account {acct}; who will respond?",
              "A competitor uses our trademark {brand} in their ads; please advise on next steps.",
              "Section {n} of your terms of service conflicts with our procurement rules; we need an amended "
              "contract.", "Our lawyers want to know which jurisdiction governs the master services agreement."),
}
DEPT_POOLS = {"month": MONTHS, "inv": tuple(str(8000 + 37 * i) for i in range(20)),
              "inv2": tuple(str(9000 + 41 * i) for i in range(20)), "vat": ("DE811907980", "NL123456789B01",
                                                                          "FR40303265045"),
              "last4": ("4417", "0092", "7731", "5120"), "acct": ("AC-3391", "AC-7720", "WS-1042", "AC-5568"),
              "mail": ("ap@northwind.example", "finance@orbit.example", "billing@kestrel.example"),
              "x": (49, 99, 120, 240), "y": (79, 149, 180, 310), "ver": ("4.2.0", "5.0.1", "3.9.7", "6.1"),
              "err": ("0x80070005", "E_SYNC_401", "ERR-5512", "0xC000021A"), "day": WEEKDAYS,
              "n": (12, 25, 40, 80, 150),
              "device": ("Pixel 8", "iPhone 13", "Galaxy S23", "iPad Air"), "plan": ("Pro", "Business", "Team",
                                                                                     "Enterprise"),
              "date": ("3 March", "1 July", "15 September", "6 January"), "brand": ("Brightline", "Kestrel", "Orbit")}
LANG_TEXTS = {
    "english": ("The library closes early on Fridays.", "Could you pass me the salt, please?",
                "We missed the last bus and had to walk home.", "My sister is learning to play the cello.",
                "The meeting has been moved to Thursday afternoon.", "It rained all weekend, so we stayed inside."),
    "french": ("Je voudrais réserver une table pour deux personnes.", "La gare est à dix minutes à pied.",
               "Nous avons passé nos vacances en Bretagne.", "Pouvez-vous parler plus lentement, s'il vous plaît ?",
               "Le musée est fermé le lundi.", "Mon frère travaille dans une boulangerie."),
    "german": ("Wir fahren morgen früh mit dem Zug nach Hamburg.", "Das Wetter ist heute wirklich schön.",
               "Ich habe meinen Schlüssel im Büro vergessen.", "Die Besprechung wurde auf Donnerstag verschoben.",
               "Meine Tochter spielt seit drei Jahren Geige.", "Kannst du bitte das Fenster schließen?"),
    "spanish": ("¿Dónde está la estación de tren?", "Mañana vamos a la playa con mis primos.",
                "El restaurante abre a las ocho de la noche.", "Necesito comprar pan y leche.",
                "Mi hermano vive en Valencia desde hace dos años.", "¿Puedes cerrar la ventana, por favor?"),
    "italian": ("Vorrei un caffè e un cornetto, per favore.", "Il treno per Firenze parte alle nove.",
                "Domani andiamo al mare con gli amici.", "Ho dimenticato l'ombrello in ufficio.",
                "La biblioteca è chiusa la domenica.", "Mia nonna prepara la pasta ogni domenica."),
    "portuguese": ("Onde fica a estação de comboios?", "Vamos jantar fora hoje à noite.", "O meu irmão mora em Lisboa.",
                   "Preciso de comprar pão e leite.", "A reunião foi adiada para quinta-feira.",
                   "Muito obrigado pela ajuda de ontem."),
    "dutch": ("Wij gaan morgen naar het strand.", "Kun je het raam even dichtdoen?",
              "De winkel gaat om negen uur open.",
              "Mijn zus woont al twee jaar in Utrecht.", "Het regent al de hele dag.",
              "Ik heb mijn sleutels op kantoor laten liggen."),
}
URGENCY = {
    "urgent": ("Water is coming through the ceiling of the {room} and dripping onto the {kit}.",
               "There is a strong smell of gas in the {room}.", "Someone is stuck in lift {n} between two floors.",
               "Smoke is coming out of the {kit} in the {room}.", "The main water pipe in the {room} burst and the "
               "floor is flooding.", "The cooling in the server room failed and it is already {t} degrees and "
               "rising.", "Sparks are flying from the socket behind the {kit} in the {room}."),
    "can_wait": ("One of the bulbs in the {room} flickers now and then.", "Could we get a second whiteboard in the "
                 "{room} sometime next month?", "The door of the {room} squeaks a little when it opens.",
                 "The paint in the {room} is scuffed near the skirting boards.",
                 "The plant in the {room} could use a bigger pot.", "Please order a few more coat hooks for the "
                 "{room} when it suits you.", "The coffee in the {room} tastes a bit weak lately."),
}
URG_POOLS = {"room": ("server room", "reception", "big meeting room", "kitchen on floor 3", "main lab", "archive room"),
             "kit": ("rack power strips", "printer", "coffee machine", "fuse box", "photocopier"),
             "n": (1, 2, 3, 4), "t": (38, 41, 45)}
FILETYPES = {
    "image": (("holiday_photos_2023", "team_logo", "scan_passport", "profile_picture", "screenshot_2024_05_02",
               "banner_spring_sale", "cat_on_sofa"), ("jpg", "jpeg", "png", "gif", "webp", "heic", "tiff")),
    "document": (("meeting_minutes_march", "thesis_chapter3", "rental_agreement", "cover_letter", "user_manual_v2",
                  "wedding_speech"), ("pdf", "docx", "doc", "odt", "rtf")),
    "audio": (("podcast_episode_12", "interview_recording", "voice_memo_0412", "ringtone", "lecture_week5",
               "birdsong_dawn"), ("mp3", "wav", "flac", "ogg", "m4a")),
    "video": (("family_trip_highlights", "product_demo", "drone_footage_beach", "webinar_recording",
               "tutorial_part2"), ("mp4", "mkv", "mov", "avi", "webm")),
    "archive": (("backup_full", "website_assets", "logs_january", "project_export", "photos_bundle"),
                ("zip", "tar.gz", "7z", "rar", "tgz")),
    "code": (("deploy_pipeline", "main", "parser", "utils", "migrate_db", "server", "index"),
             ("py", "js", "ts", "rs", "go", "java", "rb", "cpp")),
    "spreadsheet": (("Q3_budget_final_v2", "expenses_2024", "inventory", "sales_forecast", "timesheet_june",
                     "grades_term2"), ("xlsx", "xls", "ods")),
    "other": (("OpenSans-Regular", "Roboto-Bold", "invite_friday", "contact_card", "Lato-Italic"),
              ("ttf", "otf", "woff2", "ics", "vcf")),
}
SEVERITY = {
    "critical": ("Since the {time} deploy every user gets a {code} error on the login page and nobody can sign in.",
                 "The whole site returns {code} for every visitor, and the status page is down too.",
                 "All payments fail for every customer since {time}; no order can be completed anywhere.",
                 "The database cluster is unreachable and every request to the API times out."),
    "major": ("Search returns no results for any query, though the rest of the {app} works.",
              "Uploading attachments fails for all users with error {code}; there is no other way to share files.",
              "The checkout page rejects every discount code, even valid ones; everything else works.",
              "Exporting reports fails every time, so nobody can get their monthly reports out of the {app}.",
              "Password reset emails are never sent, so users who forget their password cannot get back in; people "
              "already signed in are fine.", "The shared calendar in the {app} shows no events for anyone since "
              "{time}, though the events are still stored."),
    "minor": ("The first save after login fails, but clicking Save a second time works.",
              "Sorting the table by date ignores the year; filtering by month still gives the right rows.",
              "Notifications arrive twice on {os}; swiping once clears both.",
              "The date picker sometimes opens behind the dialog; typing the date by hand works fine.",
              "The CSV export orders the columns differently from the screen, but every value is there.",
              "Search misses '{accented}' unless you type the accent; typing it finds the page.",
              "Uploading a file over {mb} MB fails the first time but works when retried from the upload list.",
              "The {page} page loads slowly on the first visit in the {app}; reloading it is fast."),
    "cosmetic": ("The page footer says {footer}.", "The logo on the invoice PDF looks slightly blurry.",
                 "The tooltip text on the {page} page uses a different font from the rest of the page.",
                 "The Save button on the {page} page sits two pixels lower than the Cancel button.",
                 "The {page} page title is a slightly different shade of blue than the menu.",
                 "The icon next to '{page}' in the menu is cut off by a pixel at the top."),
}
SEV_POOLS = {"time": ("14:00", "09:30", "17:15", "11:45"), "code": ("502", "503", "500", "E1042"),
             "footer": ("'Copyrigth 2025' instead of 'Copyright 2025'", "'Privcy policy' instead of 'Privacy policy'",
                        "'Contcat us' instead of 'Contact us'"),
             "app": ("web app", "mobile app", "dashboard"), "os": ("Android", "iOS", "Windows"),
             "accented": ("café", "Zürich", "crème brûlée"), "mb": (20, 50, 100),
             "page": ("reports", "billing", "settings", "profile", "team")}
DEVICES = {
    "lights": ("dim the {room} lamps to {n} percent", "make it brighter in the {room}",
               "switch off every lamp downstairs", "set the {room} bulbs to a warm white"),
    "thermostat": ("make it {k} degrees warmer in the {room}", "it's freezing in here, turn the heating up",
                   "set the {room} to {t} degrees", "lower the heat to {t} overnight"),
    "door_lock": ("did I lock the {door}? if not, do it now", "unlock the {door} for the cleaner", "lock the {door}",
                  "is the {door} bolted?", "let the dog walker in through the {door} at {time}",
                  "secure the {door} before we leave"),
    "vacuum": ("run the robot cleaner in the {room}", "clean the floors while we're out",
               "send the robot hoover back to its dock", "do a quick sweep of the {room} floor",
               "the {room} rug is full of crumbs, send the robot over", "start the floor cleaning robot at {time}"),
    "tv": ("switch to channel {n}", "put the next episode of the series on the big screen in the {room}",
           "turn the television in the {room} off", "open Netflix on the screen in the {room}",
           "put the football on the {room} telly", "show the news channel on the {room} screen"),
    "speaker": ("play the news podcast in the {room}", "turn the music up in the {room}",
                "start my morning playlist in the {room}", "pause the radio in the {room}",
                "play some {genre} in the {room}", "skip to the next song in the {room}"),
}
DEV_POOLS = {"room": ("living room", "bedroom", "kitchen", "hallway", "office", "nursery"), "n": (4, 7, 12, 21, 33),
             "k": (2, 3), "t": (17, 19, 20, 21, 22), "door": ("front door", "back door", "garage door",
                                                             "side entrance", "patio door"),
             "time": ("10:00", "noon", "3 pm", "half past four"), "genre": ("jazz", "folk", "piano music", "reggae")}
EXPENSES = {
    "travel": ("Taxi from {airport} to the hotel, {amt} EUR", "Train ticket {c1} to {c2}, second class, {amt} EUR",
               "Hotel {c2}, 2 nights, {amt} EUR", "Flight {c1}-{c2}, economy, {amt} EUR", "Car rental, 3 days, {amt} "
               "EUR"),
    "meals": ("Lunch with a client at {rest}, {amt} EUR", "Team dinner at {rest}, {amt} EUR",
              "Breakfast at the airport café, {amt} EUR", "Sandwiches and coffee for the workshop, {amt} EUR"),
    "office_supplies": ("Printer toner, 2 cartridges, {amt} EUR", "A4 paper, 5 reams, {amt} EUR",
                        "Whiteboard markers and sticky notes, {amt} EUR", "Stapler, staples and folders, {amt} EUR"),
    "software": ("Annual IntelliJ IDEA licence renewal, {amt} EUR", "Figma professional plan, one month, {amt} EUR",
                 "Adobe Acrobat subscription, {amt} EUR", "GitHub Copilot seat for a year, {amt} EUR"),
    "other": ("Bank transfer fee, {amt} EUR", "Flowers for a colleague's farewell, {amt} EUR",
              "Courier fee for returning a contract, {amt} EUR", "Gym membership, {amt} EUR"),
}
EXP_POOLS = {"airport": ("Schiphol airport", "Heathrow", "Frankfurt airport", "Lisbon airport"),
             "amt": ("12.40", "38", "54.90", "129", "212.50", "8.75", "66"), "c1": ("Utrecht", "Lyon", "Leeds", "Graz"),
             "c2": ("Brussels", "Paris", "London", "Vienna"), "rest": RESTAURANTS}
ONLINE = {
    "needs_internet": ("What is the {c1} to {c2} exchange rate right now?", "Is flight {flight} delayed today?",
                       "What's the score in tonight's {team} game?", "What are the top news headlines this morning?",
                       "How long is the queue at {airport} security right now?",
                       "What is the price of {commodity} on the market today?",
                       "Which films are showing at the cinema in {city} tonight?"),
    "offline_ok": ("What is {a} multiplied by {b}?", "How many centimetres are in {n} metres?",
                   "Rewrite this sentence in the past tense: 'We walk to the market.'", "What is the plural of "
                   "'{wordp}'?", "Sort these numbers from smallest to largest: {a}, {n}, {b}.",
                   "Spell '{wordp}' backwards.", "How many days does a leap year have?"),
}
ONL_POOLS = {"c1": ("EUR", "GBP", "JPY"), "c2": ("USD", "CHF", "SEK"), "flight": ("LH 1172", "BA 287", "KL 1023"),
             "team": ("Celtics", "Arsenal", "Lakers", "Bayern"), "airport": ("Heathrow", "JFK", "Schiphol"),
             "commodity": ("gold", "Brent crude", "coffee beans"), "city": ("Leeds", "Porto", "Denver"),
             "a": (17, 23, 48, 96), "b": (13, 31, 64, 7), "n": (3, 12, 45), "wordp": ("mouse", "cactus", "child")}
SPEECH = {
    "question": ("Is the {place} open on {day}?", "Did {name} send the {doc} yet?", "When does the {event} start?",
                 "Has the {doc} been signed?", "Who is presenting at the {event}?"),
    "command": ("Close the {thing} before you leave.", "Send {name} the {doc}.", "Book the {place} for {day}.",
                "Turn off the {thing}.", "Print two copies of the {doc}."),
    "statement": ("The {place} is closed on {day}.", "{name} sent the {doc} yesterday.", "The {event} starts at nine.",
                  "The {thing} in the corridor is broken.", "{name} is presenting at the {event}."),
}
SPEECH_POOLS = {"place": ("gym", "library", "meeting room", "pharmacy", "canteen"), "day": WEEKDAYS,
                "name": FIRST, "doc": ("contract", "report", "invoice", "slides", "floor plan"),
                "event": ("workshop", "board meeting", "school play", "webinar"),
                "thing": ("window", "projector", "heater", "back door")}
SPAM = {
    "spam": ("CONGRATULATIONS! You have won a {amt} gift card. Click {url} within 24 hours to claim it.",
             "Your mailbox will be closed today. Confirm your password now at {url} to keep it.",
             "Earn {amt} a day from home with this one crypto trick: {url}",
             "Luxury watches and pills, 90% off, today only: {url}",
             "Dear winner, send your bank details to receive the {amt} lottery prize you won."),
    "legitimate": ("Hi {name}, the slides for {day}'s review are in the shared drive under /q3. - {sender}",
                   "Reminder from the dental practice: you're booked on {day} at 10:30. Reply to reschedule.",
                   "{name}, could you review my pull request #{n} before the release on {day}? Thanks, {sender}",
                   "Minutes from {day}'s team meeting are in the wiki; action items are at the bottom. {sender}",
                   "Hi {name}, I'm running ten minutes late for our call. {sender}"),
}
SPAM_POOLS = {"amt": ("$1000", "€500", "$5,000", "£750"), "url": ("http://win-prize-now.example/claim",
                                                                  "bit.ly/3xQz9", "http://secure-verify.example/login",
                                                                  "http://cheap-deals.example"),
              "name": FIRST, "sender": FIRST, "day": WEEKDAYS, "n": (482, 517, 1093, 77)}
PII = {
    "contains_pii": ("Please ship it to {full}, {street}, {city}, phone {tel}.",
                     "{full} (born {dob}) asked us to update their passport number to {passport}.",
                     "Contact {full} at {mail} or {tel} about the invoice.",
                     "Patient {full}, date of birth {dob}, reported mild headaches."),
    "no_pii": ("The {product} weighs {w} kg and ships within {k} days.", "Meeting room 4B seats {k} people and has a "
               "projector.", "The store opens at 9:00 on weekdays and closes at 18:00.",
               "Average response time last week was {k} minutes across all tickets."),
}
PII_POOLS = {"full": ("Maria Keller", "Jonas Berg", "Aiko Tanaka", "Kwame Mensah", "Elena Petrov"),
             "street": ("Lindenstrasse 12", "14 Elm Road", "Rua das Flores 8", "Keizersgracht 221"),
             "city": ("10115 Berlin", "Leeds LS1 4AP", "1200-195 Lisbon", "1016 DZ Amsterdam"),
             "tel": ("030 1234567", "+44 7700 900123", "+351 912 345 678"), "dob": ("12 May 1987", "3 March 1992"),
             "passport": ("C01X00T47", "X1234567"), "mail": ("m.keller@example.com", "jberg@example.org"),
             "product": PRODUCTS, "w": (1.2, 3.5, 12), "k": (2, 5, 8, 14)}
PLANTS = ("spaghetti", "garlic", "olive oil", "chili flakes", "parsley", "tomatoes", "onion", "basil", "chickpeas",
          "lentils", "spinach", "rice", "mushrooms", "peppers", "courgette", "coconut milk", "tofu", "potatoes",
          "carrots", "cumin", "lemon", "black beans", "ginger", "oat milk", "almonds")
DAIRY_EGGS = ("mozzarella", "feta", "eggs", "butter", "cheddar", "honey", "yoghurt", "cream", "ricotta")
MEAT = ("anchovy fillets", "bacon", "chicken thighs", "prawns", "beef mince", "smoked salmon", "tuna", "chorizo",
        "pancetta", "lamb shoulder", "ham", "cod")
