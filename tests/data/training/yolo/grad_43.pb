Bstage3.1.out.1.weightJ@™~å¸< :ˆ»õµ_9ıoÚ:/G»CxÒ:©ŠÈº§;
¼¥ºlw¯ºXS.:ù¶#9sŸV:ö˜ºalû: