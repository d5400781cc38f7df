// The 256 safety words of chatcli (Sources/DTLS/SASWordList.swift), index = byte value.
// Never reorder: a test checks this list equals chatcli's.
self.SAS_WORDS = Object.freeze([
  'acid','acorn','actor','adobe','agent','alarm','album','alpha','amber','anchor','angel','apple','apron','arena','arrow','atlas',
  'attic','autumn','bacon','badge','bagel','baker','bamboo','banjo','barn','basil','basket','beach','beard','beaver','bench','berry',
  'bison','blade','blanket','blaze','bloom','board','bonus','boots','bottle','bread','brick','bridge','broom','bubble','bucket','bugle',
  'butter','cabin','cactus','camel','candle','canoe','canyon','carpet','carrot','castle','cedar','cello','chalk','cheese','cherry','chess',
  'cider','cinema','circus','clock','cloud','clover','cobra','cocoa','comet','coral','cotton','cougar','crayon','cricket','crown','cube',
  'cycle','daisy','delta','desert','diamond','dingo','dolphin','donkey','dragon','drum','eagle','echo','eclipse','elbow','ember','emerald',
  'engine','falcon','feather','fern','fiddle','flag','flute','forest','fossil','fox','frog','galaxy','garden','garlic','gecko','ginger',
  'giraffe','globe','goat','gold','gorilla','grape','guitar','hammer','harbor','hazel','helmet','heron','honey','husky','igloo','iguana',
  'island','ivory','jacket','jaguar','jasmine','jelly','jewel','jungle','kayak','kettle','kiwi','koala','ladder','lagoon','lantern','laser',
  'lemon','lentil','lily','lion','lizard','llama','locket','lotus','magnet','mango','maple','marble','meadow','melon','mermaid','meteor',
  'mint','mirror','mitten','monkey','moose','mosaic','muffin','nectar','needle','nickel','noodle','nutmeg','oasis','ocean','olive','onion',
  'orbit','orchid','otter','oyster','paddle','panda','papaya','parrot','peach','pebble','pepper','piano','pickle','pigeon','pilot','pine',
  'pirate','planet','plum','pocket','polar','pony','poppy','potato','pretzel','prism','puffin','pumpkin','puzzle','quartz','quill','rabbit',
  'radar','radio','raven','ribbon','river','robin','rocket','saddle','salmon','saturn','scarf','shadow','shark','shell','silver','sketch',
  'sloth','snail','spider','sponge','squid','stamp','sugar','summit','sunset','swan','tango','teapot','tiger','tomato','topaz','tractor',
  'trumpet','tulip','tundra','turtle','valley','velvet','violin','volcano','waffle','walnut','walrus','wizard','yacht','yogurt','zebra','zipper',
]);