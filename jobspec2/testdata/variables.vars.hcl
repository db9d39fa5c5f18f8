image_tag = "1.2.3"
count     = 4
