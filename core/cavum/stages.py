"""The stages of a Cavum phase, in the order they come, and their names (both engines use these codes)."""

DRAW, AUCTION, CHOOSE, ORDER_PICK, BUILD, COLOUR_BID, COLOUR_SELL, ORDER_SALE, FINAL_SALE, OVER = range(10)
STAGE_NAMES = ("order-card draw", "sequence auction", "sequence card choice", "order-card pick", "building",
               "colour sale bidding", "colour sale", "order sale", "final sale", "game over")
